#ifndef PANTRY_CZEROMQ_SHIM_H
#define PANTRY_CZEROMQ_SHIM_H

#include <zmq.h>

#endif
