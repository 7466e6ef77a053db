//! Writers, crashes and damage: the group commit, recording, many processes and kills, a store
//! born whole or found damaged, and the fences that keep trilogy inside the project whatever a
//! cloned repository holds.

#[path = "../common/mod.rs"]
mod common;

mod checkpoint;
mod clone_rebuild;
mod damage;
#[cfg(unix)]
mod doctor_fence;
mod drain;
mod fifo_fence;
#[cfg(unix)]
mod file_types_property;
mod group;
mod refused_roots;
mod refused_settings;
#[cfg(unix)]
mod store_birth;
mod torture;
#[cfg(unix)]
mod untrusted_repository;
mod user_folders;
mod user_store;
mod without_exchange;
