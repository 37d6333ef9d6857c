package disagg

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

// The line's data-parallel ranks: sent and registered where the line says
// so (Dynamo v1.1), never sent and rank 0 registered where it does not
// (Dynamo v1.0). A client's rank headers never survive on a line that
// sends ranks.
func TestDataParallelRanksFollowTheLine(t *testing.T) {
	ctx := context.Background()
	f := newFakeRouter()
	f.prefill.PrefillDPRank = 3
	f.decode.DecodeDPRank = 5
	cs := cycle(true)
	req := chatRequest("r1", map[string]string{DPRankHeader: "9", PrefillDPRankHeader: "9"})
	NewPrefillScorer("p", f).Score(ctx, cs, req, pods("p1"))
	d := NewDecodeScorer(ctx, "d", f)
	d.Score(ctx, cs, req, pods("d1"))
	d.PreRequest(ctx, req, nil)

	if sendsDPRanks {
		assert.Equal(t, "3", req.Headers[PrefillDPRankHeader])
		assert.Equal(t, "5", req.Headers[DPRankHeader])
		assert.Contains(t, f.Calls(), "add_request r1 worker=22 rank=5 tokens=3")
	} else {
		assert.Equal(t, "9", req.Headers[PrefillDPRankHeader], "v1.0 does not own this header")
		assert.Equal(t, "9", req.Headers[DPRankHeader], "v1.0 does not own this header")
		assert.Contains(t, f.Calls(), "add_request r1 worker=22 rank=0 tokens=3")
	}
}

// A prefill rank the router left unset is not sent: the prefill worker
// picks it, as in Dynamo v1.1; an aggregated request carries no prefill
// rank on a line that sends ranks.
func TestAnUnsetPrefillRankIsNotSent(t *testing.T) {
	ctx := context.Background()
	f := newFakeRouter()
	f.prefill.PrefillDPRank = dynrouter.UnsetDPRank
	req := chatRequest("r1", nil)
	NewPrefillScorer("p", f).Score(ctx, cycle(true), req, pods("p1"))
	assert.NotContains(t, req.Headers, PrefillDPRankHeader)

	agg := chatRequest("r2", map[string]string{PrefillDPRankHeader: "4"})
	NewDecodeScorer(ctx, "d", f).Score(ctx, cycle(false), agg, pods("d1"))
	if sendsDPRanks {
		assert.NotContains(t, agg.Headers, PrefillDPRankHeader)
	} else {
		assert.Equal(t, "4", agg.Headers[PrefillDPRankHeader], "v1.0 does not own this header")
	}
}
