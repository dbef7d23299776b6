//! Shared-cluster mode (`mode = "shared"`, DESIGN §13): the model-selection
//! service ([`crate::models`]) and background job traffic
//! ([`crate::jobs`]) on one cluster. A room above both modes: it imports
//! them, neither imports it.

pub mod sim;
