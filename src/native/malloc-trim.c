// kspace's one native function: glibc's malloc_trim(0), which gives the kernel back the free pages
// inside every malloc arena. glibc keeps the memory that V8's background compiler threads free
// (docs/performance.md, Memory) and returns it only on this call. Built by scripts/build-native.ts; loaded by src/malloc-trim.ts.
//
// trim() runs it on the calling thread; trimAsync() on libuv's thread pool, so that the event loop
// goes on while it walks the arenas, and resolves to the same boolean.
#include <malloc.h>
#include <stdlib.h>
#include <node_api.h>

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_get_boolean(env, malloc_trim(0) == 1, &result);
  return result;
}

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  int released;
} TrimJob;

static void Execute(napi_env env, void* data) {
  (void)env;
  TrimJob* job = data;
  job->released = malloc_trim(0);
}

static void Complete(napi_env env, napi_status status, void* data) {
  TrimJob* job = data;
  napi_value result;
  napi_get_boolean(env, status == napi_ok && job->released == 1, &result);
  napi_resolve_deferred(env, job->deferred, result);
  napi_delete_async_work(env, job->work);
  free(job);
}

static napi_value TrimAsync(napi_env env, napi_callback_info info) {
  (void)info;
  TrimJob* job = calloc(1, sizeof(TrimJob));
  napi_value promise, name;
  if (job == NULL || napi_create_promise(env, &job->deferred, &promise) != napi_ok) {
    free(job);
    napi_throw_error(env, NULL, "malloc-trim: out of memory");
    return NULL;
  }
  napi_create_string_utf8(env, "kspace:malloc-trim", NAPI_AUTO_LENGTH, &name);
  napi_status queued = napi_create_async_work(env, NULL, name, Execute, Complete, job, &job->work);
  if (queued == napi_ok) queued = napi_queue_async_work(env, job->work);
  if (queued != napi_ok) {
    if (job->work != NULL) napi_delete_async_work(env, job->work);
    napi_value err, msg;
    napi_create_string_utf8(env, "malloc-trim: could not queue the work", NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &err);
    napi_reject_deferred(env, job->deferred, err);
    free(job);
  }
  return promise;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "trimAsync", NAPI_AUTO_LENGTH, TrimAsync, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trimAsync", fn) != napi_ok) return NULL;
  return exports;
}
