/*
 * The "pipeline" generation of Dynamo's C API (library dynamo_llm_capi) with
 * the signatures of Dynamo v0.8.0, as this binding calls it: exactly the
 * prototypes the Go code uses. v0.8.0 adds enforce_disagg to
 * dynamo_create_worker_selection_pipeline, a prefill worker output to
 * dynamo_query_worker_selection_and_annotate (same symbol names as v0.7.0,
 * other arities) and the dynamo_router_* bookkeeping calls. Not
 * dynamo_llm_shutdown: the runtime lives as long as the process, because
 * the library cannot be initialised again after it.
 */
#ifndef EPP_BUILD_DYNAMO_LLM_PIPELINE08_H
#define EPP_BUILD_DYNAMO_LLM_PIPELINE08_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A #[repr(u32)] Rust enum: 0 is OK, anything else a failure. */
typedef uint32_t dynamo_llm_result_t;

/* Opaque; owned by the library between create and destroy. */
typedef struct WorkerSelectionPipeline WorkerSelectionPipeline;

#ifdef __cplusplus
extern "C" {
#endif

dynamo_llm_result_t dynamo_llm_init(const char *namespace_c_str,
                                    const char *component_c_str,
                                    uint32_t kv_block_size);

dynamo_llm_result_t dynamo_create_worker_selection_pipeline(const char *namespace_c_str,
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

dynamo_llm_result_t dynamo_query_worker_selection_and_annotate(WorkerSelectionPipeline *pipeline,
                                                               const char *request_json_c_str,
                                                               int64_t *decode_worker_id_out,
                                                               int64_t *prefill_worker_id_out,
                                                               uint32_t **token_ids_out,
                                                               size_t *token_count_out,
                                                               char **annotated_request_json_out);

dynamo_llm_result_t dynamo_free_worker_selection_result(uint32_t *token_ids,
                                                        size_t token_count,
                                                        char *annotated_request_json);

dynamo_llm_result_t dynamo_destroy_worker_selection_pipeline(WorkerSelectionPipeline *pipeline);

dynamo_llm_result_t dynamo_router_add_request(WorkerSelectionPipeline *pipeline,
                                              const char *request_id_c_str,
                                              const uint32_t *token_ids,
                                              size_t token_count,
                                              uint64_t worker_id,
                                              uint32_t dp_rank);

dynamo_llm_result_t dynamo_router_mark_prefill_complete(WorkerSelectionPipeline *pipeline,
                                                        const char *request_id_c_str);

dynamo_llm_result_t dynamo_router_free_request(WorkerSelectionPipeline *pipeline,
                                               const char *request_id_c_str);

#ifdef __cplusplus
}
#endif

#endif
