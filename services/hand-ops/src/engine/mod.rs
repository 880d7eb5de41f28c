//! Pure engine.
