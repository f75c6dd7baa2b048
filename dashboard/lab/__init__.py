"""The Compare-metrics (metric lab) page's logic: the runs, the ladders, the run-time estimate and the view."""
