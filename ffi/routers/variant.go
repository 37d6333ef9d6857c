package routers

import "strings"

// Variant names the shape of the C API this build binds, one value per
// variant axis, as the Go build tags <axis>_<value> chose it (see
// dynamo_llm_routers.h). The build picks the tags from the linked
// library's header; a build without them binds the defaults.
type Variant struct {
	Result      string // routers_result: 5, 7 or 9 CRoutingResult fields
	Add         string // routers_add: 6 (add_request) or 8 (add_request_with_cache_namespace)
	Reservation string // routers_reservation: none, 4, 2 or timeout
}

// Bound is the variant this binary was compiled for.
func Bound() Variant {
	return Variant{Result: resultVariant, Add: addVariant, Reservation: reservationVariant}
}

// Tags are the build tags of the variant.
func (v Variant) Tags() []string {
	return []string{"routers_result_" + v.Result, "routers_add_" + v.Add, "routers_reservation_" + v.Reservation}
}

func (v Variant) String() string { return strings.Join(v.Tags(), ",") }
