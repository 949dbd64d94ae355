#pragma once
// A lesson's engine fact (lesson_facts.hpp: read from the trainer on the run's session thread) kept
// as a GUI-thread copy, so Check reads it without waiting for the engine: asked at the controller's
// ticks while it is unknown, forgotten when the run is replaced or another fact is followed. GUI thread.
#include <QObject>
#include <QString>

#include <cstdint>
#include <optional>

namespace distlab::ui {

class MainWindow;

class EngineFact : public QObject {
    Q_OBJECT

public:
    explicit EngineFact(MainWindow& window, QObject* parent = nullptr);

    /// Follows the fact `name`; none when it is empty or not an engine fact (isEngineFact).
    void follow(const QString& name);
    /// The followed fact as the current run last answered it, or nothing yet.
    const std::optional<QString>& value() const { return m_value; }

signals:
    /// value() has come.
    void answered();

private:
    void ask();
    void forget();

    MainWindow& m_window;
    QString m_name;
    std::optional<QString> m_value;
    std::uint64_t m_generation = 0;  // an answer asked before the last forget() is dropped
    bool m_asking = false;
};

}  // namespace distlab::ui
