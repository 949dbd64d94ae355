#pragma once
// A run's per-step rows in bounded memory, whatever the run's length: every row of the recent
// kRecent steps, and before them the rows of every stride-th step (step - 1 a multiple of the
// stride), the stride doubling whenever the older rows reach kMaxOlder (under 50,000 rows in all).
// The rule looks at step numbers only, so two logs thinned apart and then joined (the session's
// backlog of steps the ring had no room for, handed to the app's history) thin alike. Rows are
// added in step order; no row moves on the way in except the one leaving the recent ones. One
// thread at a time (the owner's).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace distlab {

template <typename Row>  // Row has `std::int64_t step`
class ThinnedLog {
public:
    /// Rows kept for every step at the recent end.
    static constexpr std::size_t kRecent = 20'000;
    /// The older rows' bound: reaching it halves them and doubles the stride.
    static constexpr std::size_t kMaxOlder = 30'000;

    /// Adds the newest row.
    void add(const Row& row) {
        if (m_recent.size() < kRecent) {
            m_recent.push_back(row);
            return;
        }
        Row& oldest = m_recent[m_recentHead];
        keepOlder(oldest);
        oldest = row;
        m_recentHead = (m_recentHead + 1) % kRecent;
    }

    std::size_t size() const { return m_older.size() + m_recent.size(); }
    bool empty() const { return m_older.empty() && m_recent.empty(); }
    void clear() {
        m_recent.clear();
        m_older.clear();
        m_recentHead = 0;
        m_stride = 1;
    }
    /// The older rows are those of every stride-th step.
    std::int64_t stride() const { return m_stride; }
    /// Recent rows held (every step's).
    std::size_t recentCount() const { return m_recent.size(); }
    /// The `back`-th newest recent row (0: the newest); back < recentCount().
    Row& fromNewest(std::size_t back) { return m_recent[(m_recentHead + m_recent.size() - 1 - back) % m_recent.size()]; }
    /// fn(row) for every row, in step order.
    template <typename Fn>
    void forEach(Fn&& fn) const {
        for (const Row& row : m_older) fn(row);
        for (std::size_t i = 0; i < m_recent.size(); ++i) fn(m_recent[(m_recentHead + i) % m_recent.size()]);
    }
    std::vector<Row> rows() const {
        std::vector<Row> all;
        all.reserve(size());
        forEach([&](const Row& row) { all.push_back(row); });
        return all;
    }

private:
    bool kept(const Row& row) const { return (row.step - 1) % m_stride == 0; }
    void keepOlder(const Row& row) {
        if (!kept(row)) return;
        if (m_older.capacity() == 0) m_older.reserve(kMaxOlder);
        m_older.push_back(row);
        // Rows thinned elsewhere with a larger stride survive a halving whole: halve until under.
        while (m_older.size() >= kMaxOlder) {
            m_stride *= 2;
            std::erase_if(m_older, [this](const Row& older) { return !kept(older); });
        }
    }

    std::vector<Row> m_recent;  // a ring once it holds kRecent rows; m_recentHead is the oldest
    std::size_t m_recentHead = 0;
    std::vector<Row> m_older;
    std::int64_t m_stride = 1;
};

}  // namespace distlab
