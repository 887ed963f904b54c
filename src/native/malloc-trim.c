// kspace's one native function: glibc's malloc_trim(0), which gives the kernel back the free pages
// inside every malloc arena. glibc keeps the memory that V8's background compiler threads free
// (their arenas held 20-25 MB of free pages under the core load, docs/performance.md, Memory) and
// returns it only on this call. Built by scripts/build-native.ts; loaded by src/malloc-trim.ts.
#include <malloc.h>
#include <node_api.h>

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_get_boolean(env, malloc_trim(0) == 1, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}
