/* The declarations Dynamo's Go side used from v0.6.1 to v0.9.x. */
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
typedef uint32_t dynamo_llm_result_t;
typedef struct WorkerSelectionPipeline WorkerSelectionPipeline;
dynamo_llm_result_t dynamo_llm_init(const char *ns, const char *comp, int64_t worker_id, uint32_t kv_block_size);
dynamo_llm_result_t dynamo_llm_shutdown(void);
dynamo_llm_result_t dynamo_destroy_worker_selection_pipeline(WorkerSelectionPipeline *p);
dynamo_llm_result_t dynamo_one_shot_select_and_annotate(const char *request_json, int64_t *worker_out);
