//! The golden queries: each ranks its expected entry in the top three of a fixed corpus.

use super::*;

const GOLDEN: [(&str, &str); 44] = [
    ("沙箱禁管道", "沙箱禁止命名管道"),
    ("命名管道", "沙箱禁止命名管道"),
    ("并发写入丢条目", "并发写入时丢条目"),
    ("注入预算 窗口", "注入预算改为按窗口"),
    ("webhook 签名 时区", "webhook 签名校验失败"),
    ("时间戳偏差", "时间戳偏差 8 小时"),
    ("迁移脚本崩溃", "迁移脚本在空表上崩溃"),
    ("日志轮转 磁盘", "日志轮转太频繁"),
    ("中文搜索", "中文搜索搜不到"),
    ("二元分词", "改用二元分词"),
    ("SessionEnd 超时", "SessionEnd 只有 1.5 秒"),
    ("未知键 报错", "未知键现在会报错"),
    ("归档 指针行", "指针行显示归档条数"),
    ("为什么不用 SQLite", "用 redb 而不是 SQLite"),
    ("全文检索", "采用 tantivy 做全文检索"),
    ("倒排索引", "自己写倒排索引"),
    ("hook 里建索引", "不在 hook 里建索引"),
    ("跨会话项目记忆", "跨会话项目记忆"),
    ("多进程锁协议", "多进程锁协议有版本"),
    ("MCP 服务器还没做", "MCP 服务器还没做"),
    ("磁盘 IO 飙升", "磁盘 IO 飙升"),
    ("压力测试", "压力测试 10 个进程"),
    ("why did we drop SQLite", "Drop SQLite in favour of redb"),
    ("running tests", "Ran the test suite 20 times"),
    ("parseSessions", "parse_sessions now keeps free prose"),
    ("render_sessions", "Renamed renderSessions"),
    ("renderSessions", "Renamed renderSessions"),
    ("flaky CI", "flaky CI job"),
    ("lock timeout flag", "--lock-timeout flag"),
    ("--lock-timeout", "--lock-timeout flag"),
    ("fsync latency", "Measured fsync latency"),
    ("camelCase identifiers", "splits camelCase and snake_case"),
    ("merging threads IndexWriter", "wait for merging threads"),
    ("FileDoesNotExist", "FileDoesNotExist errors are gone"),
    ("docker offline", "Docker build fails offline"),
    ("memory leak MCP", "Memory leak in the MCP server"),
    (
        "windows paths backslashes",
        "Windows paths with backslashes",
    ),
    ("bincode", "Use bincode for store values"),
    ("source of truth markdown", "never the source of truth"),
    ("QueryParser Chinese", "Do not use QueryParser"),
    ("src/store/mod.rs", "src/store/mod.rs — redb tables"),
    ("cargo test --locked", "cargo test --locked"),
    ("FTS5 tokenizer", "FTS5's default tokenizer"),
    ("readers dropped RSS", "readers were never dropped"),
];

#[test]
fn golden_queries_rank_the_expected_entry_in_the_top_three() {
    let ws = fixture();
    let corpus = corpus(&ws);
    let mut misses = Vec::new();
    // twice: while the entries are still pending (scored from the store, as a young
    // workspace's are) and once they are all in the index
    for pass in ["pending", "indexed"] {
        let unindexed = ws.json(&["search", "warmup"])["unindexed"]
            .as_u64()
            .unwrap();
        match pass {
            "pending" => assert!(unindexed > 0, "the fixture starts out pending"),
            _ => assert_eq!(unindexed, 0, "reindex applied everything"),
        }
        for (query, marker) in GOLDEN {
            let expected: Vec<&str> = corpus
                .iter()
                .filter(|(_, t)| t.contains(marker))
                .map(|(id, _)| id.as_str())
                .collect();
            assert_eq!(expected.len(), 1, "marker {marker:?} must name one entry");
            let got = top_ids(&ws, query, 3);
            if !got.iter().any(|id| id == expected[0]) {
                misses.push(format!(
                    "{pass}: {query:?} → expected {marker:?}, got {got:?}"
                ));
            }
        }
        ws.ok(&["reindex"]);
    }
    assert!(
        misses.is_empty(),
        "{} of {} missed:\n{}",
        misses.len(),
        GOLDEN.len(),
        misses.join("\n")
    );
    let chinese = GOLDEN
        .iter()
        .filter(|(q, _)| q.chars().any(trilogy::index::is_cjk))
        .count();
    assert!(
        chinese * 2 >= GOLDEN.len() - 2,
        "about half the golden set is Chinese ({chinese})"
    );
}
