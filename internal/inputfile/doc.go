// Package inputfile opens an input the tool reads (a recipe.yaml, a patch,
// a state file it wrote earlier, a key, a secret, a message file) as what it
// claims to be: a regular file of bounded size, inside the recipe folder
// when one is given. A FIFO, a device, a socket or a symlink out of the
// folder is refused before a byte is read, so a hostile file cannot hang a
// command or make it read until memory runs out.
package inputfile
