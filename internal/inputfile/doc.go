// Package inputfile opens a recipe input (a recipe.yaml or a patch file) as
// what it claims to be: a regular file of bounded size, inside the recipe
// folder when one is given. A FIFO, a device, a socket or a symlink out of
// the folder is refused before a byte is read, so a hostile recipe cannot
// hang a command or make it read until memory runs out.
package inputfile
