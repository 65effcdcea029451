"""tau2-bench integration (optional extra ``tau2``)."""
