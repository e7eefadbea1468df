package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import "context"

// DownloadOptions select what DownloadLogs fetches; zero values are the defaults.
type DownloadOptions struct {
	Node *int // only this node; default every node
}

// DownloadEntry is the outcome for one node of a log download.
type DownloadEntry struct {
	Node     int
	Path     string // the file written, or "" when nothing was
	Bytes    int64
	Complete bool   // every chunk was downloaded
	Error    string // what went wrong, or ""
}

// DownloadReport lists what a log download wrote.
type DownloadReport struct {
	Entries       []DownloadEntry
	NoLogsMessage string // when the run has no MLflow logs: why; else ""
	State         State  // the run's display state when the download ended
	StateName     string // State as written
	Terminal      bool   // the run had ended when the download ended
	Succeeded     bool   // the run had ended SUCCESS
}

// DownloadLogs writes the MLflow log artifacts of run runID to
// <dir>/logs/node_<n>.log. A node whose download fails is reported in its
// entry, not as an error, unless every node failed. opts may be nil.
func (c *Client) DownloadLogs(ctx context.Context, runID int64, dir string, opts *DownloadOptions) (*DownloadReport, error) {
	node := -1
	if opts != nil && opts.Node != nil {
		node = *opts.Node
	}
	return withCall(c, ctx, logsOpts, func(o *C.air_logs_options) error {
		return check(C.air_logs_options_set_int(o, logsNode, C.int64_t(node)), nil)
	}, func(k *call, o *C.air_logs_options) (*DownloadReport, error) {
		d := cstr(dir)
		defer free(d)
		var rep *C.air_download_report
		var e *C.air_error
		if err := k.result(C.air_client_download_logs(k.h, C.int64_t(runID), d, o, &rep, &e), e); err != nil {
			return nil, err
		}
		defer C.air_download_report_free(rep)
		return downloadReportFromC(rep), nil
	})
}

func downloadReportFromC(rep *C.air_download_report) *DownloadReport {
	out := &DownloadReport{
		NoLogsMessage: gostr(C.air_download_report_no_logs_message(rep)),
		State:         State(C.air_download_report_state(rep)),
		StateName:     gostr(C.air_download_report_state_name(rep)),
		Terminal:      C.air_download_report_terminal(rep) != 0,
		Succeeded:     C.air_download_report_succeeded(rep) != 0,
	}
	n := C.air_download_report_count(rep)
	for i := C.size_t(0); i < n; i++ {
		out.Entries = append(out.Entries, DownloadEntry{
			Node:     int(C.air_download_report_node(rep, i)),
			Path:     gostr(C.air_download_report_path(rep, i)),
			Bytes:    int64(C.air_download_report_bytes(rep, i)),
			Complete: C.air_download_report_complete(rep, i) != 0,
			Error:    gostr(C.air_download_report_error(rep, i)),
		})
	}
	return out
}
