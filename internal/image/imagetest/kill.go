package imagetest

// Kill ends the process with SIGKILL, as a node that dies (OOM, a lost
// machine) ends: no graceful shutdown of its connections. Stop after Kill
// does nothing more.
func (p *Process) Kill() {
	if p == nil || p.cmd.Process == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Kill()
	err := <-p.done
	p.done <- err // Stop and exited read it again
}
