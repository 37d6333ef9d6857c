/* Prototypes of the C API this binding calls (checked against the
   library's header at build time). */
#include <stdint.h>

uint32_t dynamo_llm_init(const char *namespace_, const char *component, int64_t worker_id, uint32_t kv_block_size);
uint32_t dynamo_llm_shutdown(void);
uint32_t dynamo_capi_generation(void);
