//! Writers, crashes and damage: the group commit, recording, many processes and kills, a store
//! born whole or found damaged, and the fences that keep trilogy inside the project whatever a
//! cloned repository holds.

#[path = "../common/mod.rs"]
mod common;

mod checkpoint;
mod damage;
mod doctor_fence;
mod fifo_fence;
mod file_types_property;
mod group;
mod refused_roots;
mod refused_settings;
mod store_birth;
mod torture;
mod untrusted_repository;
mod user_folders;
mod user_store;
