#ifndef SAMPLE_C_H
#define SAMPLE_C_H

/* Generated-looking header in cbindgen's C style with cpp_compat. */

#include <stdbool.h>
#include <stdint.h>

#define SAMPLE_LIMIT \
  (UINT32_MAX - 1)

enum sample_result_t
#ifdef __cplusplus
  : uint32_t
#endif // __cplusplus
 {
  SAMPLE_OK = 0,
  SAMPLE_ERR = 1,
};
#ifndef __cplusplus
typedef uint32_t sample_result_t;
#endif // __cplusplus

typedef struct Handle Handle;

typedef struct Result {
  bool ok;
  uint32_t *items; /* owned by the library */
  size_t count;
} Result;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * Opens things. Mentions sample_fake(int x); inside a comment.
 */
sample_result_t sample_open(const char *name,
                            // a comment between parameters
                            uint32_t   block_size,
                            Handle **out);

sample_result_t sample_close(void);

void sample_free(struct Result *result);

int64_t sample_count();

#ifdef __cplusplus
} // extern "C"
#endif // __cplusplus

#endif /* SAMPLE_C_H */
