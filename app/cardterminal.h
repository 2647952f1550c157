// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <QUrl>
#include <memory>

namespace marquee::sync {
class ApiClient;
}

namespace marquee::app {

/** @brief How a terminal payment ended. */
struct TerminalResult {
    enum class Outcome { Approved, Declined, Aborted, TimedOut, Error };
    Outcome outcome = Outcome::Error;
    QString reason; ///< decline reason or error text
};

/**
 * @brief A card payment terminal: asked to take one payment intent, it answers once with finished().
 * Real terminals (ZVT, OPI, ...) implement this; SimulatedTerminal talks to marquee-paysim.
 */
class CardTerminal : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    /** @brief Ask the customer to present a card for @p paymentIntentId. One payment at a time. */
    virtual void startPayment(const QString &paymentIntentId, qint64 amountMinor, const QString &currency) = 0;
    /** @brief Abort the running payment; finished(Aborted) follows unless it already ended. */
    virtual void abort() = 0;
    virtual bool busy() const = 0;
    /** @brief Give up on the customer after this long (finished(TimedOut)). */
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int timeoutMs() const { return m_timeoutMs; }

Q_SIGNALS:
    void finished(const marquee::app::TerminalResult &result);

protected:
    int m_timeoutMs = 60000;
};

/**
 * @brief The development terminal: "presenting a card" is choosing a card token (tok_visa, tok_declined...) on
 * the simulator panel, which posts `{card_token}` to marquee-paysim `/v1/intents/{id}/pay`.
 */
class SimulatedTerminal : public CardTerminal
{
    Q_OBJECT
public:
    explicit SimulatedTerminal(const QUrl &paysim, QObject *parent = nullptr);
    ~SimulatedTerminal() override;
    void startPayment(const QString &paymentIntentId, qint64 amountMinor, const QString &currency) override;
    void abort() override;
    bool busy() const override { return !m_intent.isEmpty(); }
    /** @brief The customer "presents" a card: the token decides what paysim answers. */
    void presentCard(const QString &cardToken);
    QUrl paysim() const { return m_paysim; }

private:
    void finish(TerminalResult::Outcome outcome, const QString &reason = {});

    QUrl m_paysim;
    std::unique_ptr<sync::ApiClient> m_provider; ///< the card provider (no kiosk token)
    QString m_intent;
    QTimer m_timeout;
    quint64 m_generation = 0;
};

} // namespace marquee::app
