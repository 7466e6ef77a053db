//! Slot allocation of recent sessions across areas: every area gets one slot while slots
//! last, the rest go by attention weight (highest averages), no area above twice its even share.

/// An area competing for slots.
#[derive(Debug, Clone)]
pub struct AreaLoad {
    pub name: String,
    /// Σ 0.5^(age_days / 14) over the area's entries.
    pub weight: f64,
    /// Live entries in the area.
    pub entries: usize,
}

/// Slots per area (same order as `areas`) for `total` slots.
pub fn allocate(areas: &[AreaLoad], total: usize) -> Vec<usize> {
    let n = areas.len();
    let mut slots = vec![0usize; n];
    if n == 0 || total == 0 {
        return slots;
    }
    let mut rank: Vec<usize> = (0..n).collect();
    rank.sort_by(|&a, &b| {
        areas[b]
            .weight
            .total_cmp(&areas[a].weight)
            .then_with(|| areas[a].name.cmp(&areas[b].name))
    });
    let mut left = total;
    for &i in &rank {
        if left == 0 {
            break;
        }
        if areas[i].entries > 0 {
            slots[i] = 1;
            left -= 1;
        }
    }
    let cap = ((total as f64 / n as f64) * 2.0).ceil().max(1.0) as usize;
    while left > 0 {
        let mut best: Option<(usize, f64)> = None;
        for &i in &rank {
            if slots[i] >= cap || slots[i] >= areas[i].entries {
                continue;
            }
            let score = areas[i].weight / (slots[i] + 1) as f64;
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((i, score));
            }
        }
        match best {
            Some((i, _)) => {
                slots[i] += 1;
                left -= 1;
            }
            None => break,
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(name: &str, ages: &[i64]) -> AreaLoad {
        AreaLoad {
            name: name.into(),
            weight: ages.iter().map(|a| 0.5f64.powf(*a as f64 / 14.0)).sum(),
            entries: ages.len(),
        }
    }

    #[test]
    fn hot_area_is_capped_and_every_area_is_present() {
        let areas = vec![
            load("hot", &[0; 20]),
            load("warm", &[30, 30]),
            load("cold", &[60]),
        ];
        let slots = allocate(&areas, 15);
        assert!(slots.iter().all(|s| *s >= 1), "{slots:?}");
        assert!(
            slots[0] <= 10,
            "hot ≤ twice its fair share of 15/3: {slots:?}"
        );
        assert_eq!(
            slots.iter().sum::<usize>(),
            13,
            "warm and cold are exhausted: {slots:?}"
        );
        assert_eq!(slots, vec![10, 2, 1]);
    }

    #[test]
    fn fewer_slots_than_areas_favours_the_heaviest() {
        let areas = vec![load("a", &[100]), load("b", &[0]), load("c", &[10])];
        assert_eq!(allocate(&areas, 2), vec![0, 1, 1]);
        assert_eq!(allocate(&areas, 0), vec![0, 0, 0]);
    }
}
