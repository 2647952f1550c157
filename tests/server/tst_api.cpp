// SPDX-License-Identifier: AGPL-3.0-or-later
#include "testserver.h"

#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

TEST(Api, HealthAndReady)
{
    TestServer server;
    auto client = server.client();
    EXPECT_EQ(client->get("/healthz").status, 200);
    const HttpResult ready = client->get("/readyz");
    EXPECT_EQ(ready.status, 200);
    EXPECT_EQ(ready.json().value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
}
