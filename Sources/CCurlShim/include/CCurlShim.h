#ifndef PANTRY_CCURLSHIM_H
#define PANTRY_CCURLSHIM_H

#include <curl/curl.h>

// Swift cannot call C variadic functions, so curl_easy_setopt/getinfo get
// one typed entry point per argument type they are used with.

typedef size_t (*pantry_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);

CURLcode pantry_curl_global_init(void);

CURLcode pantry_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pantry_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode pantry_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode pantry_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode pantry_curl_setopt_write_function(CURL *handle, pantry_curl_data_callback callback);
CURLcode pantry_curl_setopt_header_function(CURL *handle, pantry_curl_data_callback callback);
CURLcode pantry_curl_setopt_read_function(CURL *handle, pantry_curl_data_callback callback);

CURLcode pantry_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode pantry_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);

// Transfer bodies of megabytes live for one call: mapped past this size rather than taken from the
// heap arenas, which keep their pages (glibc's threshold otherwise rises to the largest freed).
void pantry_map_buffers_larger_than(int bytes);

#endif
