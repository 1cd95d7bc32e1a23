//! Arrow adapter tests (being written).
