package export

// Slug is the part of a format-patch file name that comes from the
// subject ("0001-" + Slug(subject) + ".patch").
func Slug(subject string) string { return slug(subject) }
