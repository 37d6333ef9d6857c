package image

import (
	"fmt"
	"slices"
	"strings"
)

// Annotation targets, as buildx's --annotation and BuildKit's exporters
// name them.
var annotationTypes = []string{"manifest", "index", "manifest-descriptor", "index-descriptor"}

// AnnotationError is a --annotation or --label value that cannot work.
type AnnotationError struct{ Flag, Value, Reason string }

func (e *AnnotationError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Flag, e.Value, e.Reason)
}

// ParseLabels reads --label KEY=VALUE values.
func ParseLabels(values []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		k, val, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &AnnotationError{Flag: "--label", Value: v, Reason: "want KEY=VALUE"}
		}
		out[strings.TrimSpace(k)] = val
	}
	return out, nil
}

// ParseAnnotations reads --annotation values in buildx's syntax,
// [TYPE[,TYPE...]:]KEY=VALUE with TYPE manifest (the default), index,
// manifest-descriptor or index-descriptor, into BuildKit exporter
// attributes annotation-TYPE.KEY.
func ParseAnnotations(values []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		kv, val, ok := strings.Cut(v, "=")
		if !ok {
			return nil, &AnnotationError{Flag: "--annotation", Value: v, Reason: "want [TYPE,...:]KEY=VALUE"}
		}
		types := []string{"manifest"}
		key := kv
		if t, k, hasType := strings.Cut(kv, ":"); hasType {
			types, key = strings.Split(t, ","), k
		}
		key = strings.TrimSpace(key)
		if key == "" {
			return nil, &AnnotationError{Flag: "--annotation", Value: v, Reason: "no key"}
		}
		for _, t := range types {
			t = strings.TrimSpace(t)
			if !slices.Contains(annotationTypes, t) {
				return nil, &AnnotationError{Flag: "--annotation", Value: v, Reason: fmt.Sprintf("type %q: use %s", t, strings.Join(annotationTypes, ", "))}
			}
			out["annotation-"+t+"."+key] = val
		}
	}
	return out, nil
}

// IndexAnnotations picks the index's own annotations out of exporter
// attributes, for an index assembled here (AssembleAnnotatedIndex).
func IndexAnnotations(attrs map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range attrs {
		if key, ok := strings.CutPrefix(k, "annotation-index."); ok {
			out[key] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
