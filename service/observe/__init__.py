"""What a running process tells about itself: log lines, Prometheus metrics, progress of long
work, the state of its chat connections and which optional native helpers it found."""
