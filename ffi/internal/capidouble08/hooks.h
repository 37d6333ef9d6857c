/* Test-only hooks of the C API test double built with feature pipeline08. */
#include <stdint.h>

int64_t dynamo_double_outstanding_results(void);
int64_t dynamo_double_live_pipelines(void);
int64_t dynamo_double_violations(void);
int64_t dynamo_double_registered_requests(void);
