// Package outdir changes an output folder so that a run which stops
// midway never leaves it half written.
//
// A new tree is built in a staging folder beside the output folder and
// takes its place with renames (Staging); the tree it replaces is kept in
// a backup folder when it held changes apply did not make. A re-apply in
// place writes a journal before it changes a file, so that the next run
// can complete it (Journal). One run at a time writes an output folder
// (Lock), which lets it remove what a killed run left (RemoveStale).
package outdir
