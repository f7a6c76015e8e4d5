//! Shared test data.
#![allow(dead_code)]

pub mod workloads;
