//! Gates and locks: the file locks that keep one engine tick, one build and
//! one agent per unit at a time.

pub mod lock;
