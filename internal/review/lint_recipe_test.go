package review

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

func TestUnreachableRepositoryNamesLocalAddresses(t *testing.T) {
	for repo, want := range map[string]string{
		"https://github.com/kubernetes-sigs/gateway-api-inference-extension.git": "",
		"git@github.com:ai-dynamo/dynamo.git":                                    "",
		"http://127.0.0.1:39123/gaie":                                            "on a loopback address",
		"http://[::1]:8080/gaie.git":                                             "on a loopback address",
		"https://localhost/gaie.git":                                             "on localhost",
		"https://10.1.2.3/mirror/gaie.git":                                       "on a private address",
		"ssh://git@192.168.0.7/gaie.git":                                         "on a private address",
		"git@172.16.0.1:gaie.git":                                                "on a private address",
		"http://169.254.1.1/gaie":                                                "on a link-local address",
		"file:///srv/git/gaie.git":                                               "a local path",
		"../gaie":                                                                "a local path",
	} {
		assert.Equal(t, want, unreachableRepository(repo), repo)
	}
}

func TestLoopbackNoticeShowsNoCredential(t *testing.T) {
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Repository: "http://alice:TOKsecret123@127.0.0.1:39123/gaie"}}
	problems := recipeProblems(r)
	require.Len(t, problems, 1)
	assert.True(t, problems[0].Notice)
	assert.NotContains(t, problems[0].Message, "TOKsecret123")
	assert.Contains(t, problems[0].Message, "127.0.0.1:39123/gaie is on a loopback address")
}
