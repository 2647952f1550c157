// SPDX-License-Identifier: AGPL-3.0-or-later
// The role matrix: every route the server registers × every role → allowed, or refused with 403
// (401 without a token), no exceptions. The routes come from the running server's route table, so a route added
// later is covered automatically — and fails here until its access is declared below and matches.
#include "servertesthelpers.h"

#include "core/role.h"

#include <QHash>
#include <QRegularExpression>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

// Who may call each route: "public", or the roles that may, as letters: K kiosk, T till, C cashier, M manager,
// A admin. Keep this in step with docs/api.md; a route that is not here fails the test.
const QHash<QString, QString> kDeclaredAccess = {
    {QStringLiteral("GET /healthz"), QStringLiteral("public")},
    {QStringLiteral("GET /readyz"), QStringLiteral("public")},
    {QStringLiteral("POST /api/v1/sessions"), QStringLiteral("public")},
    {QStringLiteral("POST /api/v1/devices/pair"), QStringLiteral("public")},
    {QStringLiteral("GET /api/v1/venue-ca"), QStringLiteral("public")},
    {QStringLiteral("DELETE /api/v1/sessions/current"), QStringLiteral("C M A")},
    {QStringLiteral("POST /api/v1/sessions/reauth"), QStringLiteral("C M A")},
    {QStringLiteral("PUT /api/v1/sessions/current/pin"), QStringLiteral("C M A")},
    {QStringLiteral("GET /api/v1/cities"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/cities/{city_id}/movies"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/movies/{movie_id}/shows"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/shows/{show_id}"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/shows/{show_id}/seatmap"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/shows/{show_id}/layout"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/shows/{show_id}/availability"), QStringLiteral("K T C M A")},
    {QStringLiteral("POST /api/v1/shows/{show_id}/hold"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/holds/{hold_id}"), QStringLiteral("K T C M A")},
    {QStringLiteral("DELETE /api/v1/holds/{hold_id}"), QStringLiteral("K T C M A")},
    {QStringLiteral("POST /api/v1/orders"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/orders/{order_id}"), QStringLiteral("K T C M A")},
    {QStringLiteral("POST /api/v1/orders/{order_id}/confirm"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/bookings"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/bookings/{booking_id}"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/customers/bookings"), QStringLiteral("C M A")},
    {QStringLiteral("POST /api/v1/bookings/{booking_id}/cancel"), QStringLiteral("T C M A")},
    {QStringLiteral("POST /api/v1/tickets/{ticket_id}/reissue"), QStringLiteral("T C M A")},
    {QStringLiteral("POST /webhooks/payment"), QStringLiteral("public")},
    {QStringLiteral("GET /api/v1/keys"), QStringLiteral("K T C M A")}, // each caller its own venue's keys (tst_venuekeys.cpp)
    {QStringLiteral("GET /api/v1/delegations"), QStringLiteral("K T C M A")}, // the venue's, like the keys (tst_delegation.cpp)
    {QStringLiteral("GET /api/v1/revocations"), QStringLiteral("K T C M A")},
    {QStringLiteral("POST /api/v1/checkin"), QStringLiteral("K T C M A")},
    {QStringLiteral("POST /api/v1/sync/batch"), QStringLiteral("K T")},
    {QStringLiteral("GET /api/v1/events"), QStringLiteral("K T C M A")},
    {QStringLiteral("POST /api/v1/shows"), QStringLiteral("M A")},
    {QStringLiteral("PATCH /api/v1/shows/{show_id}"), QStringLiteral("M A")},
    {QStringLiteral("POST /api/v1/devices/heartbeat"), QStringLiteral("K T")},
    {QStringLiteral("GET /api/v1/devices"), QStringLiteral("M A")},
    {QStringLiteral("GET /api/v1/reports/audit"), QStringLiteral("M A")},
    {QStringLiteral("GET /api/v1/reports/sales"), QStringLiteral("M A")},
    {QStringLiteral("GET /api/v1/reports/occupancy"), QStringLiteral("M A")},
    {QStringLiteral("GET /api/v1/reports/shifts"), QStringLiteral("M A")},
    {QStringLiteral("GET /api/v1/reports/reconciliation"), QStringLiteral("M A")},
    {QStringLiteral("GET /api/v1/reports/refunds"), QStringLiteral("M A")},
    {QStringLiteral("POST /api/v1/shifts"), QStringLiteral("C M A")},
    {QStringLiteral("GET /api/v1/shifts/current"), QStringLiteral("C M A")},
    {QStringLiteral("POST /api/v1/shifts/current/drawer"), QStringLiteral("C M A")},
    {QStringLiteral("POST /api/v1/shifts/current/close"), QStringLiteral("C M A")},
    {QStringLiteral("PUT /api/v1/shows/{show_id}/waiting-room"), QStringLiteral("M A")},
    {QStringLiteral("POST /api/v1/queue/{show_id}/join"), QStringLiteral("K T C M A")},
    {QStringLiteral("GET /api/v1/queue/{show_id}/status"), QStringLiteral("K T C M A")},
    {QStringLiteral("POST /api/v1/shows/{show_id}/house-holds"), QStringLiteral("M A")},
    {QStringLiteral("GET /api/v1/shows/{show_id}/house-holds"), QStringLiteral("M A")},
    {QStringLiteral("DELETE /api/v1/house-holds/{hold_id}"), QStringLiteral("M A")},
    {QStringLiteral("POST /api/v1/shows/{show_id}/leases"), QStringLiteral("T C M A")},
    {QStringLiteral("GET /api/v1/shows/{show_id}/leases"), QStringLiteral("T C M A")},
    {QStringLiteral("GET /api/v1/leases/{lease_id}"), QStringLiteral("T C M A")},
    {QStringLiteral("DELETE /api/v1/leases/{lease_id}"), QStringLiteral("T C M A")},
    {QStringLiteral("POST /api/v1/leases/{lease_id}/sales"), QStringLiteral("T C M A")},
    {QStringLiteral("GET /api/v1/shows/{show_id}/lease-settings"), QStringLiteral("M A")},
    {QStringLiteral("PUT /api/v1/shows/{show_id}/lease-settings"), QStringLiteral("M A")},
};

struct Caller {
    QString name;
    std::optional<Role> role; ///< std::nullopt: no token at all
    char letter;
};

const std::vector<Caller> kCallers = {{QStringLiteral("anonymous"), std::nullopt, '-'},  {QStringLiteral("kiosk"), Role::Kiosk, 'K'},
                                      {QStringLiteral("till"), Role::Till, 'T'},          {QStringLiteral("cashier"), Role::Cashier, 'C'},
                                      {QStringLiteral("manager"), Role::Manager, 'M'},    {QStringLiteral("admin"), Role::Admin, 'A'}};

// What the declaration says, as the Router spells it.
http::Access declaredAccess(const QString &declaration)
{
    if (declaration == QLatin1String("public"))
        return http::Access::anyone();
    RoleMask mask = 0;
    for (const Caller &caller : kCallers) {
        if (caller.role && declaration.contains(QLatin1Char(caller.letter)))
            mask |= roleBit(*caller.role);
    }
    return http::Access::roles_(mask);
}
} // namespace

TEST(RoleMatrix, EveryRouteTimesEveryRoleIsAllowedOrRefused)
{
    TestServer server;
    // Staff sessions are re-authenticated, so that a route's own "enter your PIN again" answer cannot be taken for
    // (or hide) the role check; devices have nothing to re-enter.
    QHash<QString, QString> tokens;
    auto mint = [&server](const Caller &caller) {
        return isDeviceRole(*caller.role) ? server.deviceToken(caller.name) : server.elevatedStaffToken(caller.name);
    };
    for (const Caller &caller : kCallers) {
        if (caller.role)
            tokens.insert(caller.name, mint(caller));
    }

    const auto &routes = server.router().routes();
    ASSERT_GE(routes.size(), kDeclaredAccess.size() / 2) << "the route table is suspiciously small";
    int checked = 0;
    for (const http::Router::Route &route : routes) {
        const QString key = QString::fromLatin1(http::methodName(route.method)) + QLatin1Char(' ') + route.pattern;
        if (!kDeclaredAccess.contains(key)) {
            ADD_FAILURE() << key.toStdString() << " is registered but its access is not declared in tst_rolematrix.cpp";
            continue;
        }
        const http::Access expected = declaredAccess(kDeclaredAccess.value(key));
        EXPECT_EQ(route.access.isPublic, expected.isPublic) << key.toStdString();
        EXPECT_EQ(route.access.roles, expected.roles) << key.toStdString() << " declares other roles than the router has";

        // Any value fills a path parameter: the role check comes before the handler looks at it.
        QString path = route.pattern;
        path.replace(QRegularExpression(QStringLiteral("\\{[a-z_]+\\}")), QStringLiteral("1"));
        for (const Caller &caller : kCallers) {
            auto client = server.client(caller.role ? tokens.value(caller.name) : QString());
            const HttpResult result = client->request(http::methodName(route.method), path.toUtf8(), "{}", {{"Content-Type", "application/json"}});
            const QString code = result.json().value(QStringLiteral("error")).toString();
            const std::string where = key.toStdString() + " as " + caller.name.toStdString() + ": " + result.body.toStdString();
            const bool refusedByRole = result.status == 403 && code == QLatin1String("forbidden");
            const bool refusedForToken = result.status == 401 && (code == QLatin1String("unauthorized") || code == QLatin1String("session_locked"));
            ASSERT_NE(result.status, 0) << where;
            if (expected.isPublic) {
                EXPECT_FALSE(refusedByRole || refusedForToken) << where;
            } else if (!caller.role) {
                EXPECT_EQ(result.status, 401) << where;
                EXPECT_EQ(code, QStringLiteral("unauthorized")) << where;
            } else if (expected.roles & roleBit(*caller.role)) {
                EXPECT_FALSE(refusedByRole || refusedForToken) << where;
                EXPECT_NE(result.status, 403) << where << " (an allowed role must not be refused by a handler either)";
            } else {
                EXPECT_EQ(result.status, 403) << where;
                EXPECT_EQ(code, QStringLiteral("forbidden")) << where;
            }
            ++checked;
            // A route may end the caller's session (sign-out): take a fresh one for the next route.
            if (caller.role) {
                server.context().auth.clearCache();
                if (!server.context().auth.authenticate(tokens.value(caller.name)))
                    tokens.insert(caller.name, mint(caller));
            }
        }
    }
    // Every declared route exists: a stale declaration is a mistake too.
    QSet<QString> registered;
    for (const http::Router::Route &route : routes)
        registered.insert(QString::fromLatin1(http::methodName(route.method)) + QLatin1Char(' ') + route.pattern);
    for (auto it = kDeclaredAccess.constBegin(); it != kDeclaredAccess.constEnd(); ++it)
        EXPECT_TRUE(registered.contains(it.key())) << it.key().toStdString() << " is declared but no longer registered";
    EXPECT_EQ(checked, int(routes.size() * kCallers.size()));
}
