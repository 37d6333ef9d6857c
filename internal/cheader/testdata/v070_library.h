/* What Rust exported at v0.7.0 (abridged). */
#include <stdint.h>
typedef uint32_t dynamo_llm_result_t;
typedef struct WorkerSelectionPipeline WorkerSelectionPipeline;
#ifdef __cplusplus
extern "C" {
#endif
dynamo_llm_result_t dynamo_llm_init(const char *namespace_c_str, const char *component_c_str, uint32_t kv_block_size);
dynamo_llm_result_t dynamo_llm_shutdown(void);
dynamo_llm_result_t dynamo_destroy_worker_selection_pipeline(WorkerSelectionPipeline *pipeline);
#ifdef __cplusplus
}
#endif
