package oracle

// StateLetter names the SPEC §1.2 state the query answers a show for a
// known pod; started (a SyncPod ran in this incarnation) tells S from P,
// which the answers cannot.
func StateLetter(a Answers, started bool) string {
	switch {
	case a.BeFinished:
		return "F"
	case a.KnownTerminated:
		return "D"
	case a.ContainersBeTerminating:
		return "T"
	case a.TerminationRequested:
		return "TR"
	case started:
		return "S"
	}
	return "P"
}
