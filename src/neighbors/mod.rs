//! Nearest neighbours by cosine similarity: for each destination page, the k most similar
//! candidate source pages, with raw scores. Vectors arrive L2-normalised, so cosine is a dot
//! product. A page is never its own neighbour; ties go to the lower id (ids are in URL order).

pub mod exact;

pub use exact::{Matrix, Neighbor, top_k, top_k_with_progress};
