//! End-to-end tests: the binary runs on exports written by the tests, and the workbook is
//! read back. One test binary (see Cargo.toml) keeps the 2-core CI quick.

mod defects;
mod holdout;
mod identity;
mod imports;
mod inputs;
mod libreoffice;
mod props;
mod review;
mod run;
mod settings;
mod signals;
mod snippets;
mod util;
mod watch;
