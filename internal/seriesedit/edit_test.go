package seriesedit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMessageKeepsTrailersAndAddsTheFoldedOnes(t *testing.T) {
	old := "Route b\n\nOld prose.\n\nUpstream: https://example.com/pull/1\nReason: test\n"
	assert.Equal(t, "Route b\n\nNew prose.\n\nUpstream: https://example.com/pull/1\nReason: test\n", message(old, Message{Body: "New prose."}, nil))
	assert.Equal(t, "Route b through Dynamo\n\nOld prose.\n\nUpstream: https://example.com/pull/1\nReason: test\n", message(old, Message{Subject: "Route b through Dynamo"}, nil))
	assert.Equal(t, "Route b\n\nOld prose.\n\nUpstream: https://example.com/pull/1\nReason: test\nReason: other\n",
		message(old, Message{}, []string{"Reason: test", "Reason: other"}), "a folded patch's trailers are added once")
	assert.Equal(t, "Fix d\n\nWhy it is needed.\n", message("Fix d\n", Message{Body: "Why it is needed."}, nil))
	assert.Equal(t, "Fix d\n", message("Fix d\n", Message{}, nil))
}

func TestNewNameKeepsWhatDidNotChange(t *testing.T) {
	before := []string{"0001-Route-a.patch", "0002-Route-b.patch", "gaie.patch"}
	one := func(name string) group { return group{members: []string{name}} }
	assert.Equal(t, "0002-Route-b.patch", newName(before, 1, builtPatch{group: one("0002-Route-b.patch"), subject: "Route b"}))
	assert.Equal(t, "0001-Route-b.patch", newName(before, 0, builtPatch{group: one("0002-Route-b.patch"), subject: "Route b"}), "moved: renumbered")
	assert.Equal(t, "0002-Route-b-via-Dynamo.patch", newName(before, 1, builtPatch{group: one("0002-Route-b.patch"), subject: "Route b via Dynamo", renamed: true}))
	assert.Equal(t, "gaie.patch", newName(before, 2, builtPatch{group: one("gaie.patch"), subject: "Apply gaie.patch"}))
	assert.Equal(t, "0001-Apply-gaie.patch.patch", newName(before, 0, builtPatch{group: one("gaie.patch"), subject: "Apply gaie.patch"}))
	squashed := group{members: []string{"0001-Route-a.patch", "0002-Route-b.patch"}}
	assert.Equal(t, "0001-Route-a.patch", newName(before, 0, builtPatch{group: squashed, subject: "Route a"}), "a squash keeps its target's name text")
}
