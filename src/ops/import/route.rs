//! Where a heading sends the text under it, read by the words it uses in either language:
//! the sources whose files have no fixed headings (CLAUDE.md, untyped auto memory, a memory
//! bank's tech context) are placed with it. Pure.

/// Where a heading's text sends what is under it, by the words it uses (either language).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// A PROJECT section (0..5).
    Slot(usize),
    /// Rules for the agent (style, conventions): they stay in the host's instructions file.
    Instructions,
}

/// Route a heading (`Project structure`, `Running tests`, `坑`) by its words; `None` when
/// it names nothing trilogy has a place for. Traps are asked first so `Known issues` is not
/// taken for State, and places before the overview so `Project structure` is a place.
pub fn route(heading: &str) -> Option<Route> {
    const ROUTES: [(Route, &[&str]); 6] = [
        (
            Route::Slot(4),
            &[
                "gotcha",
                "pitfall",
                "caveat",
                "trap",
                "known issue",
                "debug",
                "troubleshoot",
                "lesson",
                "warning",
                "坑",
                "陷阱",
                "注意",
                "踩",
            ],
        ),
        (
            Route::Slot(1),
            &[
                "command",
                "build",
                "test",
                "run",
                "setup",
                "set up",
                "install",
                "develop",
                "lint",
                "deploy",
                "release",
                "ci",
                "running",
                "运行",
                "测试",
                "构建",
                "命令",
                "安装",
                "怎么跑",
            ],
        ),
        (
            Route::Slot(2),
            &[
                "architecture",
                "structure",
                "layout",
                "file",
                "director",
                "where",
                "module",
                "codebase",
                "stack",
                "technolog",
                "dependenc",
                "component",
                "reference",
                "结构",
                "目录",
                "架构",
                "位置",
                "在哪",
                "依赖",
            ],
        ),
        (
            Route::Slot(3),
            &[
                "status",
                "state",
                "current",
                "progress",
                "roadmap",
                "todo",
                "milestone",
                "现状",
                "进展",
                "状态",
                "进度",
            ],
        ),
        (
            Route::Instructions,
            &[
                "style",
                "convention",
                "guideline",
                "rule",
                "preference",
                "instruction",
                "workflow",
                "规范",
                "约定",
                "风格",
                "偏好",
            ],
        ),
        (
            Route::Slot(0),
            &[
                "overview",
                "about",
                "project",
                "purpose",
                "introduction",
                "what this is",
                "summary",
                "goal",
                "brief",
                "简介",
                "概述",
                "项目",
                "这是什么",
                "目标",
            ],
        ),
    ];
    let lower = heading.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let hit = |k: &str| {
        if !k.is_ascii() || k.contains(' ') {
            lower.contains(k)
        } else if k.len() <= 3 {
            words.contains(&k)
        } else {
            words.iter().any(|w| w.starts_with(k))
        }
    };
    ROUTES
        .iter()
        .find(|(_, keys)| keys.iter().any(|k| hit(k)))
        .map(|(r, _)| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_route_by_their_words() {
        assert_eq!(route("Project structure"), Some(Route::Slot(2)));
        assert_eq!(route("Running tests"), Some(Route::Slot(1)));
        assert_eq!(route("Known issues"), Some(Route::Slot(4)));
        assert_eq!(route("Project overview"), Some(Route::Slot(0)));
        assert_eq!(route("Current status"), Some(Route::Slot(3)));
        assert_eq!(route("Code style"), Some(Route::Instructions));
        assert_eq!(route("怎么跑和怎么测"), Some(Route::Slot(1)));
        assert_eq!(route("Specifics"), None);
    }
}
