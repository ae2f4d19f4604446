package main

import "github.com/podsim/podsim/cmd/simrun/internal/tracetext"

// The trace-text helpers live in internal/tracetext; this package's tests
// call them by the names they had here.
var (
	parseTrace      = tracetext.Parse
	traceRecordTime = tracetext.RecordTime
	traceLines      = tracetext.Lines
	traceTimeline   = tracetext.Timeline
	laneOf          = tracetext.LaneOf
	timelineWindows = tracetext.Windows
)
