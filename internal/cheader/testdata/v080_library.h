/*
 * Every function Dynamo v0.8.0's lib/bindings/c/src/lib.rs exports (tag
 * v0.8.0, 115531a0c0bf58ff12df7ef7e69082d50fd4d707), written by hand in
 * the C++ form cbindgen gives them under the crate's cbindgen.toml
 * (DynamoLlmResult renamed dynamo_llm_result_t, usize as uintptr_t).
 * Comments give each item's line in lib.rs.
 */
#include <cstdint>

enum dynamo_llm_result_t : uint32_t { /* 54 */
  OK = 0,
  ERR = 1,
};

struct WorkerSelectionPipeline; /* 424: no #[repr(C)], opaque */

extern "C" {

dynamo_llm_result_t dynamo_llm_init(const char *namespace_c_str, /* 97 */
                                    const char *component_c_str,
                                    uint32_t kv_block_size);

dynamo_llm_result_t dynamo_llm_shutdown(); /* 167 */

dynamo_llm_result_t dynamo_llm_load_publisher_create(); /* 182 */

dynamo_llm_result_t dynamo_kv_event_publish_stored(uint64_t event_id, /* 314 */
                                                   const uint32_t *token_ids,
                                                   const uintptr_t *num_block_tokens,
                                                   const uint64_t *block_ids,
                                                   uintptr_t num_blocks,
                                                   const uint64_t *parent_hash,
                                                   uint64_t lora_id);

dynamo_llm_result_t dynamo_kv_event_publish_removed(uint64_t event_id, /* 351 */
                                                    const uint64_t *block_ids,
                                                    uintptr_t num_blocks);

dynamo_llm_result_t dynamo_create_worker_selection_pipeline(const char *namespace_c_str, /* 454 */
                                                            const char *component_c_str,
                                                            const char *model_name_c_str,
                                                            bool use_kv_routing,
                                                            double busy_threshold,
                                                            double overlap_score_weight,
                                                            double router_temperature,
                                                            bool use_kv_events,
                                                            bool router_replica_sync,
                                                            bool enforce_disagg,
                                                            WorkerSelectionPipeline **pipeline_out);

dynamo_llm_result_t dynamo_query_worker_selection_and_annotate(WorkerSelectionPipeline *pipeline, /* 614 */
                                                               const char *request_json_c_str,
                                                               int64_t *decode_worker_id_out,
                                                               int64_t *prefill_worker_id_out,
                                                               uint32_t **token_ids_out,
                                                               uintptr_t *token_count_out,
                                                               char **annotated_request_json_out);

dynamo_llm_result_t dynamo_destroy_worker_selection_pipeline(WorkerSelectionPipeline *pipeline); /* 742 */

dynamo_llm_result_t dynamo_free_worker_selection_result(uint32_t *token_ids, /* 779 */
                                                        uintptr_t token_count,
                                                        char *annotated_request_json);

dynamo_llm_result_t dynamo_router_add_request(WorkerSelectionPipeline *pipeline, /* 879 */
                                              const char *request_id_c_str,
                                              const uint32_t *token_ids,
                                              uintptr_t token_count,
                                              uint64_t worker_id,
                                              uint32_t dp_rank);

dynamo_llm_result_t dynamo_router_mark_prefill_complete(WorkerSelectionPipeline *pipeline, /* 953 */
                                                        const char *request_id_c_str);

dynamo_llm_result_t dynamo_router_free_request(WorkerSelectionPipeline *pipeline, /* 1003 */
                                               const char *request_id_c_str);

} // extern "C"
