#ifndef PANTRY_CCURL_SHIM_H
#define PANTRY_CCURL_SHIM_H
#include <curl/curl.h>
#endif
