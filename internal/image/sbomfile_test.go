package image

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestImagesCarryTheCAPISPDX: both compile modes put the SPDX document
// naming the upstream module and the C API into the image.
func TestImagesCarryTheCAPISPDX(t *testing.T) {
	copyLine := "COPY " + CAPISPDXFile + " " + CAPISPDXPath
	assert.Contains(t, HostDockerfile("epp"), copyLine)
	container := ContainerDockerfile("epp", "./cmd/epp", "pkg/binding")
	assert.Contains(t, container, copyLine)
}
