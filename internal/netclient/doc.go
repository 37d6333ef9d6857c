// Package netclient is the HTTP transport every network client of
// epp-build uses (the module proxy, the registry): a connection that is not
// made, a response whose headers do not come, or a body that stops or only
// drips, fails after a deadline instead of hanging the command, with an
// error that names the host and how to wait longer.
package netclient
