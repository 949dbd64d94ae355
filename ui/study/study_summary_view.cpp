#include "study/study_summary_view.hpp"

#include <QHeaderView>

#include <algorithm>

#include "study/study_charts.hpp"
#include "study/study_controller.hpp"

namespace distlab::ui {

StudySummaryView::StudySummaryView(StudyController& controller, QWidget* parent) : QTableWidget(parent), m_controller(controller) {
    setObjectName(QStringLiteral("studySummary"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the study's order until a header is clicked
    horizontalHeader()->setSortIndicatorShown(true);
    setSortingEnabled(true);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    verticalHeader()->setVisible(false);
    connect(&m_controller, &StudyController::updated, this, &StudySummaryView::refresh);
}

StudyTable StudySummaryView::table() const {
    // The predicted columns only when the study was predicted (as distlab-cli compare --predict).
    const auto& predictions = m_controller.predictions();
    const bool predicted = std::any_of(predictions.begin(), predictions.end(), [](const auto& p) { return p.has_value(); }) ||
                           std::any_of(m_controller.predictionNotes().begin(), m_controller.predictionNotes().end(),
                                       [](const std::string& note) { return !note.empty(); });
    return makeStudyTable(m_controller.rows(), m_controller.study().baseline(),
                          predicted ? std::span<const std::optional<StepTimePrediction>>(predictions)
                                    : std::span<const std::optional<StepTimePrediction>>());
}

void StudySummaryView::refresh() {
    if (m_drawn == m_controller.version()) return;
    m_drawn = m_controller.version();
    const StudyTable shown = table();
    const int sortColumn = horizontalHeader()->sortIndicatorSection();
    const Qt::SortOrder order = horizontalHeader()->sortIndicatorOrder();
    setSortingEnabled(false);  // rows stay put while they are filled
    setColumnCount(static_cast<int>(shown.header.size()));
    setRowCount(static_cast<int>(shown.rows.size()));
    QStringList header;
    for (const std::string& name : shown.header) header.append(QString::fromStdString(name));
    setHorizontalHeaderLabels(header);
    for (int r = 0; r < rowCount(); ++r) {
        const auto& cells = shown.rows[static_cast<std::size_t>(r)];
        for (int c = 0; c < columnCount(); ++c) {
            const QString text = QString::fromStdString(cells[static_cast<std::size_t>(c)]);
            auto* item = new QTableWidgetItem();
            bool number = false;
            const double value = text.toDouble(&number);
            // Numbers sort as numbers; the cell shows the table's own text.
            if (number) item->setData(Qt::EditRole, value);
            item->setData(Qt::DisplayRole, number ? QVariant(value) : QVariant(text));
            item->setToolTip(text);
            if (c == 0) item->setForeground(StudyCharts::variantColor(r));
            if (r == m_controller.study().baseline()) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            setItem(r, c, item);
        }
    }
    setSortingEnabled(true);
    if (sortColumn >= 0 && sortColumn < columnCount()) sortItems(sortColumn, order);
}

}  // namespace distlab::ui
