//! W1–W6 workload generation (placeholder).
