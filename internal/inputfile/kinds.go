package inputfile

// The limits of the inputs that are not recipes: each well above what the
// tool itself writes or a real key holds, so hitting one means the file is
// not what its name says.
const (
	// StateBytes bounds a state file the tool wrote earlier (rebase.json,
	// pick.json, a stored pick, applied.json, the active-rebase note):
	// they hold names and one stopped patch, never a tree.
	StateBytes = 16 << 20
	// KeyBytes bounds a signing or verification key file.
	KeyBytes = 1 << 20
	// MessageBytes bounds a commit message read from a file.
	MessageBytes = 1 << 20
	// IndexBytes bounds a work tree's .git/index: GAIE's is a few hundred
	// KB; a repository of millions of files would need more.
	IndexBytes = 1 << 30
)

// IndexLimit is the limit for a work tree's .git/index.
func IndexLimit() Limit {
	return Limit{Bytes: IndexBytes, What: "a git index", Raise: "it is damaged or not git's; apply again into a new --out"}
}

// StateLimit is the limit for a state file named what.
func StateLimit(what string) Limit {
	return Limit{Bytes: StateBytes, What: what, Raise: "it was edited or is damaged; remove it or start again"}
}

// KeyLimit is the limit for a key file.
func KeyLimit() Limit {
	return Limit{Bytes: KeyBytes, What: "a key file", Raise: "name the PEM key file itself"}
}

// MessageLimit is the limit for a commit message file.
func MessageLimit() Limit {
	return Limit{Bytes: MessageBytes, What: "a commit message"}
}
