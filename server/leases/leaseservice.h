// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/apierror.h"
#include "orders/paymentsettings.h"
#include "store/leaserepository.h"

#include <QJsonObject>
#include <variant>

namespace marquee::store {
class BookingRepository;
class OrderRepository;
}

namespace marquee {

/** @brief A lease request, parsed: named seats, or the @p best free seats. */
struct LeaseRequest {
    qint64 showId = 0;
    QStringList seatIds;
    int best = 0;
    QByteArray devicePublicKey; ///< raw 32 bytes: the lease gets a delegation for this device key; empty: none
    QString idempotencyKey;
    QByteArray fingerprint;
};

/** @brief A use case's answer: status and body, or a catalogue error. */
using LeaseAnswer = std::variant<std::pair<int, QJsonObject>, ApiError>;

/**
 * @brief Seat-block leases: a till's exclusive right to sell named seats of one show, online and offline, until the
 * lease expires (docs/sync.md, "Leases"). Every seat write is PostgreSQL's decision (LeaseRepository); a sale the
 * till reports becomes exactly one booking through the ordinary cash order and booking path (OrderRepository,
 * BookingRepository), resumed where it stopped when the upload is retried. Thread-safe like the repositories.
 */
class LeaseService
{
public:
    LeaseService(const store::LeaseDefaults &defaults, const payments::PaymentSettings &payments, store::LeaseRepository &leases,
                 store::OrderRepository &orders, store::BookingRepository &bookings);

    /** @brief POST /api/v1/shows/{id}/leases: 201 with the lease. */
    LeaseAnswer place(const store::Principal &caller, const LeaseRequest &request);
    /** @brief GET /api/v1/leases/{id}: the caller's till's lease, or any for a manager. */
    LeaseAnswer lease(const store::Principal &caller, const QString &leaseId);
    /** @brief GET /api/v1/shows/{id}/leases: the caller's till's leases of the show, or all for a manager. */
    LeaseAnswer leasesOfShow(const store::Principal &caller, qint64 showId);
    /** @brief DELETE /api/v1/leases/{id}: the till gives it back; a manager revokes (before expiry) or releases (after). */
    LeaseAnswer end(const store::Principal &caller, const QString &leaseId);
    /** @brief POST /api/v1/leases/{id}/sales: one sale of the lease's till, booked once; a retry gets the same answer. */
    LeaseAnswer reportSale(const store::Principal &caller, const QString &leaseId, const store::LeaseSale &sale);
    /** @brief GET and PUT /api/v1/shows/{id}/lease-settings (managers). */
    LeaseAnswer settings(qint64 showId);
    LeaseAnswer setSettings(const store::Principal &caller, qint64 showId, std::optional<int> seatsPerDevice,
                            std::optional<int> returnBeforeSeconds, std::optional<int> graceSeconds);

    const store::LeaseDefaults &defaults() const { return m_defaults; }

private:
    /** @brief Drive a recorded sale on from where it stopped: order, payment, booking. */
    LeaseAnswer book(const store::Principal &caller, const QString &leaseId, const store::LeaseSale &sale, qint64 deviceId,
                     const QJsonObject &recorded);

    const store::LeaseDefaults m_defaults;
    const payments::PaymentSettings m_payments;
    store::LeaseRepository &m_leases;
    store::OrderRepository &m_orders;
    store::BookingRepository &m_bookings;
};

} // namespace marquee
