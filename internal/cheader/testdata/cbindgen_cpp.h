#ifndef __SAMPLE_CPP__
#define __SAMPLE_CPP__

/* Generated-looking header in cbindgen's C++ style. */

#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <new>

namespace sample {

enum class Code : uint32_t {
  Ok = 0,
  Err = 1,
};

struct Pipeline;

struct Pair {
  int64_t left;
  int64_t right;
};

static inline int32_t helper(int32_t x) {
  if (x > 0) { return x; }
  return -x;
}

extern "C" {

Code sample_init(const char *ns, const char *component, uint32_t kv_block_size);

Code sample_query(Pipeline *pipeline,
                  const char *request_json,
                  int64_t *worker_out,
                  uint32_t **tokens_out,
                  uintptr_t *count_out);

void sample_destroy(Pipeline *pipeline);

}  // extern "C"

}  // namespace sample

#endif  // __SAMPLE_CPP__
