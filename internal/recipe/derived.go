package recipe

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Derived says a recipe is a version `rebase --as` made from another: the
// version whose series it replays and the upstream pin it was replayed
// onto. Such a recipe stands for no Dynamo release, so it carries no
// reproduces block: the release the old version reproduced was checked at
// the old pin, not this one.
type Derived struct {
	// From is the version the series came from, such as v1.4.2.
	From string `yaml:"from" json:"from"`
	// Onto names the upstream pin as PinName does: a tag, or 12 hex
	// digits of the commit.
	Onto string `yaml:"onto" json:"onto"`
}

// String is how versions and lint say what the recipe is.
func (d *Derived) String() string { return "derived from " + d.From + " onto " + d.Onto }

// OnPin says whether Onto names u, the recipe's upstream pin: a derived
// recipe rebased again, or edited by hand, may name a pin it left.
func (d *Derived) OnPin(u Upstream) bool { return namesPin(d.Onto, u) }

// pinText is a pin's name as a ref or a commit prefix spells it: no
// spaces, nothing that reads as an option.
var pinText = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+/-]*$`)

// checkDerived lists the problems of the derived block.
func (r *Recipe) checkDerived() []string {
	d := r.Derived
	if d == nil {
		return nil
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if !versionName.MatchString(d.From) {
		add("derived.from %q must name the version the series came from (a version folder's name such as v1.4.2)", d.From)
	} else if d.From == r.Version {
		add("derived.from %q names this version itself: name the version the series came from", d.From)
	}
	if !pinText.MatchString(d.Onto) || len(d.Onto) > 256 {
		add("derived.onto %q must name the upstream pin it was rebased onto (a tag, or the commit's first 12 hex digits)", d.Onto)
	}
	if r.Reproduces != nil {
		add("derived and reproduces exclude each other: a version derived from %s by a rebase reproduces no Dynamo release (drop one)", d.From)
	}
	return out
}

// Derivation is what RebasedRecipeAs writes for a new version made by a
// rebase: its name and the version it came from.
type Derivation struct {
	Version, From string
}

// derive records d in root, onto u: derived in place of reproduces (the
// old version's release, checked at the old pin), and a header that says
// what the new version is before the old one's notes.
func derive(root *yaml.Node, d Derivation, u Upstream, header string) string {
	node := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "from"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: d.From},
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "onto"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: PinName(u)},
	}, Style: yaml.FlowStyle}
	why := "# derived: made by `epp-build rebase --as`; it reproduces no Dynamo release of its own."
	if k := keyOf(root, "reproduces"); k != nil {
		k.Value, k.HeadComment, k.LineComment, k.FootComment = "derived", why, "", ""
		setKey(root, "derived", node)
		valueOf(root, "derived").HeadComment = ""
	} else {
		setKey(root, "derived", node)
		keyOf(root, "derived").HeadComment = why
	}
	line := fmt.Sprintf("# %s: derived from %s onto GAIE %s (epp-build rebase --as).", d.Version, d.From, PinName(u))
	if strings.TrimSpace(header) == "" {
		return line
	}
	return line + "\n# " + d.From + "'s notes follow.\n" + header
}

// derivedLine is the header line derive writes, with the pin's name.
var derivedLine = regexp.MustCompile(`^(# \S+: derived from \S+ onto GAIE )(\S+)( \(epp-build rebase --as\)\.)$`)

// rederive keeps a derived block, and the header line derive wrote, naming
// the pin after a rebase of the derived version over itself; the rest of
// the header is its author's and stays as written.
func rederive(root *yaml.Node, u Upstream, header string) string {
	n := valueOf(root, "derived")
	if n == nil {
		return header
	}
	if onto := valueOf(n, "onto"); onto != nil && onto.Kind == yaml.ScalarNode {
		onto.Value = PinName(u)
	}
	first, rest, more := strings.Cut(header, "\n")
	if m := derivedLine.FindStringSubmatch(first); m != nil {
		first = m[1] + PinName(u) + m[3]
	}
	if more {
		return first + "\n" + rest
	}
	return first
}
