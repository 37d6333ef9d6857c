/* The C API calls this fixture binding makes (the "pipeline" generation,
   v0.7.0 signatures); checked against the library's header at build time. */
#include <stdint.h>

typedef uint32_t dynamo_llm_result_t;

dynamo_llm_result_t dynamo_llm_init(const char *namespace_c_str, const char *component_c_str, uint32_t kv_block_size);
dynamo_llm_result_t dynamo_llm_shutdown(void);
