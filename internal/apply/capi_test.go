package apply

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

func TestStageCAPISaysWhenTheTreeHasNoBinding(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "upstream", map[string]string{"a.txt": "a\n"})
	_, err := StageCAPI(context.Background(), &recipe.Recipe{Version: "v0"}, repo.Dir, CAPIOptions{Src: t.TempDir()})
	var none *capi.NoBindingError
	require.ErrorAs(t, err, &none)
	assert.Equal(t, "dynamo_llm_pipeline.h", none.Header)
}
