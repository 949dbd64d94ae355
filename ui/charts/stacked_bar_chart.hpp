#pragma once
// A horizontal stacked bar chart adapter (one bar per category, one coloured part per set), e.g.
// where each replica's step time goes. Qt Charts stays behind this header. GUI thread only.
#include <QColor>
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <memory>

class QLabel;

namespace distlab::ui {

class StackedBarChart : public QWidget {
    Q_OBJECT

public:
    explicit StackedBarChart(QWidget* parent = nullptr);
    ~StackedBarChart() override;

    void setTitle(const QString& title);
    void setValueAxisTitle(const QString& title);
    void setEmptyText(const QString& text);
    /// The bars, top to bottom (e.g. "replica 0", "replica 1", ...). Clears the values.
    void setCategories(const QStringList& categories);
    /// Creates the part `name` on first use (stack order = first-use order); one value per category.
    void setValues(const QString& name, const QList<qreal>& values, const QColor& color);
    /// Fits the value axis to the longest bar.
    void fitAxis();
    /// Names of the bar sets, in legend order.
    QStringList seriesNames() const;
    /// Values handed over so far (for tests).
    std::int64_t valuesReceived() const { return m_valuesReceived; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    QLabel* m_emptyLabel = nullptr;
    std::int64_t m_valuesReceived = 0;
};

}  // namespace distlab::ui
