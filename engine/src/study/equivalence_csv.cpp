// The equivalence lab's per-update differences as CSV (docs/interfaces.md §13.7): what
// `distlab-cli equivalence --csv` writes, one row per kept update of every compared variant.
#include "distlab/study/equivalence.hpp"

#include <cstdio>

#include "distlab/study/study_table.hpp"

namespace distlab {

namespace {

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

}  // namespace

std::string equivalenceCsv(const EquivalenceRun& run) {
    std::string out = "step,variant,class,max_abs_diff,max_rel_diff,parameter,element,loss_diff\n";
    for (int v = 0; v < run.variantCount(); ++v) {
        const std::string label = csvCell(run.study().variants[static_cast<std::size_t>(v)].label);
        const char* kind = equivalenceClassName(run.verdict(v).kind);
        for (const EquivalencePoint& point : run.history(v)) {
            out += std::to_string(point.step) + "," + label + "," + kind + "," + number(point.maxAbsolute) + "," +
                   number(point.maxRelative) + "," + csvCell(run.parameterName(point.parameter)) + "," + std::to_string(point.element) +
                   "," + number(point.lossDifference) + "\n";
        }
    }
    return out;
}

}  // namespace distlab
