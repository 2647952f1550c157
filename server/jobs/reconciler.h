// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QThread>
#include <atomic>

namespace marquee::store {
class Database;
}
namespace marquee::payments {
class OrderService;
}

namespace marquee::jobs {

/**
 * @brief Background resolution of orders stuck between states: asks the provider about PENDING_PAYMENT orders
 * (paid → confirm or refund, failed → release, window closed → cancel the intent, then expire or book), finishes
 * PAID orders (a server that died between capture and confirm), retries pending refunds and fails orders whose
 * intent was never created.
 */
class Reconciler : public QThread
{
public:
    Reconciler(payments::OrderService &service, const store::Database &database, int intervalMs);
    ~Reconciler() override;
    void stopAndWait();
    qint64 ordersMoved() const { return m_moved.load(); }

protected:
    void run() override;

private:
    payments::OrderService &m_service;
    const store::Database &m_database;
    const int m_intervalMs;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_moved{0};
};

} // namespace marquee::jobs
