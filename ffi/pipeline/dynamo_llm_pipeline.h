/*
 * The "pipeline" generation of Dynamo's C API (library dynamo_llm_capi,
 * Dynamo v0.6-v0.8; signatures of v0.7.0) as this binding calls it: exactly
 * the prototypes the Go code uses, nothing else. The cgo preamble includes
 * this file and declares nothing itself, so a test can check every
 * prototype here against the header generated from the Rust crate (same
 * names, same number of parameters). Dynamo's own Go code once declared
 * dynamo_llm_init with 4 parameters while Rust took 3.
 */
#ifndef EPP_BUILD_DYNAMO_LLM_PIPELINE_H
#define EPP_BUILD_DYNAMO_LLM_PIPELINE_H

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
                                                            WorkerSelectionPipeline **pipeline_out);

dynamo_llm_result_t dynamo_query_worker_selection_and_annotate(WorkerSelectionPipeline *pipeline,
                                                               const char *request_json_c_str,
                                                               int64_t *worker_instance_id_out,
                                                               uint32_t **token_ids_out,
                                                               size_t *token_count_out,
                                                               char **annotated_request_json_out);

dynamo_llm_result_t dynamo_free_worker_selection_result(uint32_t *token_ids,
                                                        size_t token_count,
                                                        char *annotated_request_json);

dynamo_llm_result_t dynamo_destroy_worker_selection_pipeline(WorkerSelectionPipeline *pipeline);

#ifdef __cplusplus
}
#endif

#endif
