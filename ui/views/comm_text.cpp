#include "views/comm_text.hpp"

#include <QCoreApplication>
#include <QLocale>

#include <cstring>

#include "bridge/all_reduce_capture.hpp"

namespace distlab::ui {

namespace {
// Not tr: the unity build may put varlab_text.cpp's own tr beside this file.
QString commTr(const char* text) { return QCoreApplication::translate("CommunicationView", text); }

bool is(const char* name, const char* expected) { return std::strcmp(name, expected) == 0; }
}  // namespace

QString algorithmTitle(const AllReduceCapture& capture) {
    switch (capture.algorithm()) {
        case CrossDeviceOps::ReductionToOneDevice:
            return commTr("reduction to one device");
        case CrossDeviceOps::HierarchicalCopy:
            return commTr("hierarchical copy");
        case CrossDeviceOps::Tree:
            return commTr("tree all-reduce");
        case CrossDeviceOps::Ring:
            return commTr("ring all-reduce");
        case CrossDeviceOps::Nccl:
            return commTr("ring all-reduce (NCCL is GPU-only)");
    }
    return {};
}

QString frameTitle(const AllReduceCapture& capture, int frame) {
    if (capture.empty()) return {};
    if (frame <= 0) return commTr("Input: every replica's own gradient");
    QString title = commTr("Step %1 of %2").arg(frame).arg(capture.stepCount());
    if (capture.packs().size() > 1) {
        title += commTr(" · pack %1 of %2, its step %3 of %4")
                     .arg(capture.packOf(frame) + 1)
                     .arg(capture.packs().size())
                     .arg(capture.stepOf(frame) + 1)
                     .arg(capture.stepsPerPack());
    }
    return title + QStringLiteral(" · ") + QString::fromLatin1(capture.stepName(frame));
}

QString describeFrame(const AllReduceCapture& capture, int frame) {
    if (capture.empty()) return {};
    const int n = capture.ranks();
    if (frame <= 0) {
        return commTr(
                   "Each replica's gradient from its own shard of the batch, before the reduction: every chunk holds "
                   "one contribution. Step forward to watch the %1 add them up.")
            .arg(algorithmTitle(capture));
    }
    const char* name = capture.stepName(frame);
    QString text;
    if (is(name, "reduce-scatter")) {
        text = commTr(
                   "Reduce-scatter: each device adds the chunk (1/%1 of the buffer) its neighbour sends into its own copy "
                   "of that chunk. After %2 such steps every device holds the full sum of one chunk.")
                   .arg(n)
                   .arg(n - 1);
    } else if (is(name, "all-gather")) {
        text = commTr(
                   "All-gather: each device overwrites one chunk with the finished sum its neighbour sends. After %1 more "
                   "steps every device holds every chunk's sum.")
                   .arg(n - 1);
    } else if (is(name, "sum on device 0")) {
        text = commTr(
                   "Every other device sends its whole buffer to device 0, which adds all %1 of them into its own: "
                   "device 0 receives %2 buffers.")
                   .arg(n)
                   .arg(n - 1);
    } else if (is(name, "copy back")) {
        text = commTr("Device 0 sends the sum to each of the %1 others, which overwrite their buffers with it.").arg(n - 1);
    } else if (is(name, "sum each half on its lead")) {
        text = commTr(
            "The devices form two halves; the lead of each half (it rotates from pack to pack) adds its half's "
            "buffers into its own.");
    } else if (is(name, "add the two partial sums")) {
        text = commTr("The second lead sends its half's sum to the first lead, which adds it: the first lead holds the total.");
    } else if (is(name, "copy the total to the other lead")) {
        text = commTr("The first lead copies the total back to the second lead.");
    } else if (is(name, "copy down from the leads")) {
        text = commTr("Each lead copies the total to the other devices of its half.");
    } else if (is(name, "tree reduce")) {
        text = commTr(
                   "One level of the binary tree (device r's children are 2r+1 and 2r+2): each parent adds its children's "
                   "buffers into its own. The sums climb to device 0 in %1 levels.")
                   .arg(capture.stepsPerPack() / 2);
    } else if (is(name, "tree broadcast")) {
        text = commTr("The total flows back down one level: each child copies its parent's buffer.");
    } else {
        text = QString::fromLatin1(name);
    }
    if (frame == capture.stepCount()) text += commTr(" Done: every replica now holds the same sum.");
    return text;
}

QString formatBytes(std::int64_t bytes) {
    if (bytes < 1000) return QStringLiteral("%1 B").arg(bytes);
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat);
}

QString formatNs(std::int64_t ns) {
    const auto value = static_cast<double>(ns);
    if (ns < 1000) return QStringLiteral("%1 ns").arg(ns);
    if (ns < 1'000'000) return QStringLiteral("%1 µs").arg(value * 1e-3, 0, 'f', value < 10'000 ? 1 : 0);
    if (ns < 1'000'000'000) return QStringLiteral("%1 ms").arg(value * 1e-6, 0, 'f', value < 10'000'000 ? 2 : 1);
    return QStringLiteral("%1 s").arg(value * 1e-9, 0, 'f', 2);
}

}  // namespace distlab::ui
